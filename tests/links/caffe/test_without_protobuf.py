"""Without the optional protobuf package, chainlet and its Caffe modules still import, and using
them says what to install."""
import subprocess
import sys

SCRIPT = r'''
import sys
sys.modules['google'] = None  # as if protobuf were not installed
sys.modules['google.protobuf'] = None
import chainlet.links.caffe
import chainlet.exporters.caffe
from chainlet.links.caffe.protobuf3 import caffe_pb2
for call in (lambda: chainlet.links.caffe.CaffeFunction('model.caffemodel'),
             lambda: chainlet.exporters.caffe.export(lambda x: x, [1.0], None),
             lambda: caffe_pb2.NetParameter):
    try:
        call()
    except ImportError as e:
        assert 'pip install "chainlet-dl[caffe]"' in str(e), e
    else:
        raise AssertionError('no ImportError')
try:
    caffe_pb2.NoSuchMessage
except AttributeError:
    pass
print('ok')
'''


def test_modules_import_and_explain_without_protobuf():
    result = subprocess.run([sys.executable, '-c', SCRIPT], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == 'ok'
