"""Array manipulation: shapes, indexing, joining and splitting."""
from chainlet.functions.array.broadcast import broadcast_to  # noqa: F401
from chainlet.functions.array.cast import cast  # noqa: F401
from chainlet.functions.array.get_item import get_item  # noqa: F401
from chainlet.functions.array.reshape import reshape  # noqa: F401
from chainlet.functions.array.sum_to import sum_to  # noqa: F401
from chainlet.functions.array.transpose import transpose  # noqa: F401
from chainlet.functions.array.im2col import im2col  # noqa: F401
