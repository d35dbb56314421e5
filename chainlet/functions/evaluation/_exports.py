"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.evaluation.accuracy import accuracy  # noqa: F401
from chainlet.functions.evaluation.binary_accuracy import binary_accuracy  # noqa: F401
from chainlet.functions.evaluation.classification_summary import (  # noqa: F401
    classification_summary, f1_score, fbeta_score, precision, recall)
from chainlet.functions.evaluation.r2_score import r2_score  # noqa: F401
