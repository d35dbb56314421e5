"""chainlet.keras against Keras 3's public API (tools/keras_inventory.py, issue 31).

The inventory (tools/keras_api.json) was read from a real Keras release; these tests need no
Keras. They fail on an open gap that is not in tools/keras_api_known_gaps.txt, and on a listed
gap that is closed (delete its line: the list only shrinks).
"""
import importlib.util
import os

import pytest

TOOLS = os.path.join(os.path.dirname(__file__), '..', '..', 'tools')


@pytest.fixture(scope='module')
def inventory():
    spec = importlib.util.spec_from_file_location(
        'keras_inventory', os.path.join(TOOLS, 'keras_inventory.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope='module')
def gaps(inventory):
    return inventory.compare()


def test_no_gap_beyond_the_known_list(inventory, gaps):
    open_gaps = {key for key, status, _ in gaps if status != 'deliberate'}
    known = inventory.load_known_gaps()
    new = sorted(f'{key}  {status}: {detail}' for key, status, detail in gaps
                 if status != 'deliberate' and key not in known)
    assert not new, ('chainlet.keras lacks or mismatches these Keras 3 names (fix them, or '
                     'give a reason in tools/keras_api_deliberate.json):\n' + '\n'.join(new))
    closed = sorted(known - open_gaps)
    assert not closed, ('these gaps are closed: delete their lines from '
                        'tools/keras_api_known_gaps.txt:\n' + '\n'.join(closed))


def test_deliberate_entries_name_inventory_items_and_give_reasons(inventory):
    api = inventory.load()
    for key, reason in inventory.load_deliberate().items():
        module, _, name = key.partition(':')
        assert module in api['modules'], key
        assert not name or name in api['modules'][module], key
        assert isinstance(reason, str) and len(reason) > 20, key


def test_inventory_covers_the_issue_modules(inventory):
    modules = inventory.load()['modules']
    for name in ('keras.layers', 'keras.ops', 'keras.activations', 'keras.losses',
                 'keras.metrics', 'keras.optimizers', 'keras.optimizers.schedules',
                 'keras.callbacks', 'keras.utils', 'keras.config', 'keras.random',
                 'keras.saving', 'keras.applications', 'keras.datasets', 'keras.preprocessing',
                 'keras.regularizers', 'keras.constraints', 'keras.initializers', 'keras.Model',
                 'keras.Sequential', 'keras.Layer'):
        assert name in modules, name
    assert modules['keras.layers']['Dense']['params'][0] == 'units'
    assert modules['keras.datasets.mnist']['load_data']['kind'] == 'function'


def test_the_checker_finds_missing_names_and_mismatched_signatures(inventory):
    api = {'keras_version': 'test', 'modules': {
        'keras.layers': {
            'Dense': {'kind': 'class', 'params': ['units', 'activation=None', '**kwargs']},
            'NotALayer': {'kind': 'class', 'params': []},
            'Conv2D': {'kind': 'class', 'params': ['filters', 'kernel_size', '*', 'no_such=1']},
            'Dropout': {'kind': 'class', 'params': ['units', 'rate']},
        },
        'keras.no_such_module': {'x': {'kind': 'function', 'params': []}},
        'keras.Model': {'fit': {'kind': 'method', 'params': ['x=None', 'y=None']},
                        'no_such_method': {'kind': 'method', 'params': []}},
    }}
    found = {key: (status, detail) for key, status, detail in inventory.compare(api)}
    assert 'keras.layers:Dense' not in found
    assert found['keras.layers:NotALayer'][0] == 'missing'
    assert found['keras.layers:Conv2D'] == ('signature', 'keyword no_such missing')
    assert found['keras.layers:Dropout'][1].startswith('position 0: units (ours: rate)')
    assert found['keras.no_such_module'][0] == 'missing'
    assert 'keras.Model:fit' not in found
    assert found['keras.Model:no_such_method'][0] == 'missing'
