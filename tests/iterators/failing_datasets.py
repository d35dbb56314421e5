"""Datasets that fail in ways a worker process must survive (imported by spawned workers)."""
import pickle


class TwoArgError(Exception):
    """Like botocore's ClientError: pickles, but its constructor fails when unpickled."""

    def __init__(self, response, operation):
        super().__init__(f'{operation} failed: {response["Error"]}')
        self.response = response
        self.operation = operation


class RaisesTwoArgError:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 3:
            raise TwoArgError({'Error': 'NoSuchKey'}, 'GetObject')
        return i


class RaisesValueError:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 4:
            raise ValueError('bad example')
        return i


class BadUnpickle:
    """An example that pickles in the worker but cannot be rebuilt in the main process."""

    def __reduce__(self):
        return (_refuse, ())


def _refuse():
    raise TypeError('cannot rebuild this example')


class ReturnsBadExamples:
    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 2:
            return BadUnpickle()
        if i == 5:
            return lambda: None  # cannot be pickled at all
        return i


def roundtrips(obj):
    return type(pickle.loads(pickle.dumps(obj))) is type(obj)
