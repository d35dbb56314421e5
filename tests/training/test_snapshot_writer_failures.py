"""A queue writer whose consumer fails must report it at finalize, never wait forever."""
import threading

import pytest

import chainlet
from chainlet.training.extensions import snapshot_writers


def _failing_task(filename, outdir, target):
    raise OSError(f'disk full while writing {filename}')


@pytest.mark.parametrize('writer_class', [snapshot_writers.ThreadQueueWriter,
                                          snapshot_writers.ProcessQueueWriter])
def test_failing_task_is_reported_at_finalize_without_hanging(writer_class, tmp_path):
    writer = writer_class(task=_failing_task)
    writer('snapshot_iter_1', str(tmp_path), chainlet.Link())
    writer('snapshot_iter_2', str(tmp_path), chainlet.Link())  # never consumed
    outcome = []

    def finalize():
        try:
            writer.finalize()
        except RuntimeError as e:
            outcome.append(str(e))
    t = threading.Thread(target=finalize, daemon=True)
    t.start()
    t.join(timeout=60)
    assert not t.is_alive(), 'finalize hung on a dead consumer'
    assert outcome and 'the snapshot writer failed' in outcome[0]
