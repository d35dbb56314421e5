"""TensorBoardReport on a full disk: a warning naming the log folder, and training goes on.

tensorboardX's ``SummaryWriter`` writes from a worker thread that dies on ``ENOSPC``; the next
``queue.put`` then blocks for ever. Each run here is a subprocess with a timeout, so a return of
that hang fails the test instead of hanging the suite.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip('tensorboardX')

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent('''
    import errno, sys, warnings
    import tensorboardX.record_writer as record_writer

    class FullDisk:
        """What a file on a full file system does: every write fails with ENOSPC."""
        def write(self, data):
            raise OSError(errno.ENOSPC, 'No space left on device')
        def flush(self):
            pass
        def close(self):
            pass

    if sys.argv[1] == '/dev/full':
        record_writer.open_file = lambda path: open('/dev/full', 'wb')
    else:
        record_writer.open_file = lambda path: FullDisk()
    warnings.simplefilter('always')
    from tests.training.conftest import Setup
    from chainlet.training import extensions
    s = Setup(sys.argv[2], stop=(30, 'epoch'))  # 150 iterations
    report = extensions.TensorBoardReport(trigger=(1, 'iteration'), log_dir=sys.argv[3])
    s.trainer.extend(report)
    with warnings.catch_warnings(record=True) as caught:
        s.trainer.run()
    print('ended at', s.updater.iteration, 'entries', len(report.log),
          'writer', report.writer)
    for w in caught:
        print('WARNING', w.category.__name__, w.message)
''')


@pytest.mark.parametrize('disk', ['/dev/full', 'fake'])
def test_a_full_disk_warns_and_training_ends(tmp_path, disk):
    if disk == '/dev/full' and not os.path.exists('/dev/full'):
        pytest.skip('no /dev/full on this system')
    log_dir = str(tmp_path / 'tb')
    try:
        result = subprocess.run([sys.executable, '-c', SCRIPT, disk, str(tmp_path / 'out'),
                                 log_dir], cwd=ROOT, capture_output=True, text=True,
                                timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail('training with TensorBoardReport on a full disk did not end (hang)')
    assert result.returncode == 0, result.stderr
    assert 'ended at 150 entries 150 writer None' in result.stdout
    warnings = [line for line in result.stdout.splitlines() if line.startswith('WARNING')]
    assert len(warnings) == 1, result.stdout
    assert 'RuntimeWarning' in warnings[0] and repr(log_dir) in warnings[0]
    assert 'No space left on device' in warnings[0]
    assert 'Exception in thread' not in result.stderr  # no writer thread died


def test_a_failing_final_flush_warns_and_closes_the_file(setup_factory, tmp_path, monkeypatch):
    from chainlet.training import extensions
    from chainlet.training.extensions import tensorboard_report

    def failing_flush(self):
        raise OSError(28, 'No space left on device')

    # the final flush (at the end of training) fails; the file is closed all the same
    monkeypatch.setattr(tensorboard_report.SyncEventWriter, 'flush_if_due', lambda self: None)
    monkeypatch.setattr('tensorboardX.record_writer.RecordWriter.flush', failing_flush)
    s = setup_factory(stop=(2, 'iteration'))
    report = extensions.TensorBoardReport(trigger=(1, 'iteration'), log_dir=tmp_path / 'tb')
    s.trainer.extend(report)
    with pytest.warns(RuntimeWarning, match='No space left on device'):
        s.trainer.run()
    assert report.writer is None and len(report.log) == 2


def test_events_are_written_in_the_training_thread(setup_factory, tmp_path):
    from tensorboardX.proto import event_pb2

    from chainlet.training import extensions
    s = setup_factory(stop=(4, 'iteration'))
    s.trainer.extend(extensions.TensorBoardReport(keys=['main/loss'],
                                                  trigger=(2, 'iteration'),
                                                  log_dir=tmp_path / 'tb'))
    s.trainer.run()
    (name,) = os.listdir(tmp_path / 'tb')
    points = []
    with open(tmp_path / 'tb' / name, 'rb') as f:
        data = f.read()
    pos = 0
    while pos < len(data):  # TFRecord: length, crc, payload, crc
        length = int.from_bytes(data[pos:pos + 8], 'little')
        event = event_pb2.Event.FromString(data[pos + 12:pos + 12 + length])
        pos += 16 + length
        for value in event.summary.value:
            points.append((value.tag, event.step))
    assert ('main/loss', 2) in points and ('main/loss', 4) in points
    assert sorted({tag for tag, _ in points}) == ['elapsed_time', 'epoch', 'main/loss']
