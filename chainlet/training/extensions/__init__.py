"""Trainer extensions: evaluation, logging, progress, snapshots, plots and schedules.

Example:
    >>> from chainlet.training import extensions
    >>> extensions.LogReport().default_name
    'LogReport'
"""
from __future__ import annotations

from chainlet.training.extensions import snapshot_writers  # noqa: F401
from chainlet.training.extensions._snapshot import snapshot, snapshot_object  # noqa: F401
from chainlet.training.extensions.computational_graph import DumpGraph, dump_graph  # noqa
from chainlet.training.extensions.evaluator import Evaluator  # noqa: F401
from chainlet.training.extensions.exponential_shift import ExponentialShift  # noqa: F401
from chainlet.training.extensions.fail_on_nonnumber import FailOnNonNumber  # noqa: F401
from chainlet.training.extensions.linear_shift import LinearShift  # noqa: F401
from chainlet.training.extensions.log_report import LogReport  # noqa: F401
from chainlet.training.extensions.micro_average import MicroAverage  # noqa: F401
from chainlet.training.extensions.more_shifts import InverseShift  # noqa: F401
from chainlet.training.extensions.more_shifts import MultistepShift  # noqa: F401
from chainlet.training.extensions.more_shifts import PolynomialShift  # noqa: F401
from chainlet.training.extensions.parameter_statistics import ParameterStatistics  # noqa
from chainlet.training.extensions.plot_report import PlotReport  # noqa: F401
from chainlet.training.extensions.print_report import PrintReport  # noqa: F401
from chainlet.training.extensions.progress_bar import ProgressBar  # noqa: F401
from chainlet.training.extensions.step_shift import StepShift  # noqa: F401
from chainlet.training.extensions.tensorboard_report import TensorBoardReport  # noqa
from chainlet.training.extensions.value_observation import observe_lr  # noqa: F401
from chainlet.training.extensions.variable_unchain import unchain_variables  # noqa: F401
from chainlet.training.extensions.value_observation import observe_value  # noqa: F401
from chainlet.training.extensions.warmup_shift import WarmupShift  # noqa: F401
from chainlet.training.extensions.variable_statistics_plot import VariableStatisticsPlot  # noqa
