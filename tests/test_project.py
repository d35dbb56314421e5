"""Project-level checks: README commands, CI script, package layering, examples run."""
import ast
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / 'chainlet'
# The ground floor; 'utils' is Chainer's bottom-level helper package (type_check, conv, ...).
CORE = {'_config', 'variable', 'parameter', 'function_node', 'function', '_backprop', 'backend',
        '_devices', 'type_check', 'utils', '_hooks', '_debug', '_grad_sum', '_backprop_utils'}
# Device support beside the core (chainlet.backends.cuda / intel64): not a layer above it.
BESIDE_CORE = {'backends'}


def _readme_commands():
    text = (ROOT / 'README.md').read_text(encoding='utf-8')
    block = re.search(r'```[a-zA-Z]*\n(.*?)```', text, re.S).group(1)
    return [line.strip() for line in block.splitlines()
            if line.strip() and not line.startswith('#')]


def test_readme_opens_with_two_commands():
    cmds = _readme_commands()
    assert len(cmds) == 2
    assert 'examples/' in cmds[0] and 'pytest' in cmds[1]
    assert (ROOT / 'README.md').read_text().index('```') < 400  # it really opens with them


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / '.ci' / 'run').read_text()
    assert 'lines[1]' in ci and 'bash -c "$cmd"' in ci


def _imports(path):
    tree = ast.parse(path.read_text(encoding='utf-8'))
    top_level, names = [], []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
            if node in tree.body:
                top_level.append(node.module)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names.append(alias.name)
                if node in tree.body:
                    top_level.append(alias.name)
    return top_level, names


def test_core_does_not_import_library_at_module_level():
    for name in CORE:
        path = PKG / f'{name}.py'
        if not path.exists():
            continue
        top, _ = _imports(path)
        bad = [m for m in top if m.startswith('chainlet.') and
               m.split('.')[1] not in CORE]
        assert not bad, f'{path.name} imports {bad} at module level'


def test_core_imports_nothing_above_it_even_inside_functions():
    # The ground floor stays at the bottom: no import of functions/ or anything above, also not
    # deferred into a function body (the core's operators and methods are attached from
    # chainlet.functions._variable_methods, and it has its own gradient sum).
    allowed = CORE | BESIDE_CORE
    for name in CORE:
        path = PKG / f'{name}.py'
        if not path.exists():
            continue
        _, names = _imports(path)
        bad = sorted({m for m in names if m.startswith('chainlet.') and
                      m.split('.')[1] not in allowed})
        assert not bad, f'{path.name} imports {bad}'


def test_functions_import_only_core_and_functions():
    allowed = {f'chainlet.{c}' for c in CORE} | {'chainlet'}
    for path in (PKG / 'functions').rglob('*.py'):
        top, _ = _imports(path)
        for m in top:
            if m.startswith('chainlet'):
                assert m in allowed or m.startswith(('chainlet.functions', 'chainlet.utils.')), \
                    f'{path.relative_to(ROOT)} imports {m}'


def test_utils_sit_below_the_core():
    # chainlet.utils is imported by the core (type_check) and by every layer above: at import
    # time it may use only NumPy, the standard library, backend, _config, device_resident (a
    # leaf on backend: WalkerAlias is one, as in Chainer) and itself; a class that wraps a core
    # object (CooMatrix's Variable) imports it when called, and nothing in it ever reaches
    # functions/ or above.
    top_ok = ('chainlet.backend', 'chainlet._config', 'chainlet.device_resident',
              'chainlet.utils')
    above = ('chainlet.functions', 'chainlet.links', 'chainlet.link', 'chainlet.optimizer',
             'chainlet.training', 'chainlet.keras', 'chainlet.testing', 'chainlet.serializers',
             'chainlet.datasets', 'chainlet.dataset', 'chainlet.iterators', 'chainlet.initializer')
    for path in (PKG / 'utils').rglob('*.py'):
        top, names = _imports(path)
        for m in top:
            if m.startswith('chainlet'):
                assert m == 'chainlet' or m.startswith(top_ok), \
                    f'{path.relative_to(ROOT)} imports {m} at module level'
        reach = [m for m in names if m.startswith(above)]
        assert not reach, f'{path.relative_to(ROOT)} imports {reach}'


def test_nothing_below_keras_imports_keras():
    for path in PKG.rglob('*.py'):
        if 'keras' in path.relative_to(PKG).parts:
            continue
        _, names = _imports(path)
        assert not [m for m in names if m.startswith('chainlet.keras')], path


def test_keras_uses_no_private_chainlet_names():
    keras = PKG / 'keras'
    if not keras.exists():
        pytest.skip('chainlet.keras does not exist yet')
    for path in keras.rglob('*.py'):
        _, names = _imports(path)
        private = [m for m in names if m.startswith('chainlet.') and
                   not m.startswith('chainlet.keras') and
                   any(part.startswith('_') for part in m.split('.'))]
        assert not private, f'{path.relative_to(ROOT)} imports {private}'


def test_no_stubs_in_package():
    for path in PKG.rglob('*.py'):
        text = path.read_text(encoding='utf-8')
        assert not re.search(r'\b(TODO|FIXME|XXX)\b', text), path


def _run_example(*args, timeout=120):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, check=True).stdout


def test_example_custom_function_node():
    out = _run_example('examples/custom_function_node.py')
    assert 'check_double_backward: ok' in out


def test_example_train_digits_smoke(tmp_path):
    pytest.importorskip('sklearn')
    saved = tmp_path / 'mlp.npz'
    out = _run_example('examples/train_digits.py', '--epochs', '3', '--out', str(saved))
    assert 'epoch   3' in out and 'final test accuracy' in out
    acc = float(re.search(r'final test accuracy: ([0-9.]+)', out).group(1))
    assert acc > 0.85
    assert saved.exists()


def test_example_gradient_penalty_smoke():
    out = _run_example('examples/gradient_penalty.py', '--steps', '60')
    norm = float(re.search(r'final mean input-gradient norm: ([0-9.]+)', out).group(1))
    assert 0.5 < norm < 1.5


def test_example_convnet_smoke():
    pytest.importorskip('sklearn')
    out = _run_example('examples/convnet.py', '--epochs', '2')
    acc = float(re.search(r'final test accuracy: ([0-9.]+)', out).group(1))
    assert acc > 0.7


def test_example_train_vae_smoke(tmp_path):
    pytest.importorskip('sklearn')
    out = _run_example('examples/train_vae.py', '--epochs', '5', '--out', str(tmp_path))
    initial = float(re.search(r'initial test loss \(negative ELBO\): ([0-9.]+)', out).group(1))
    final = float(re.search(r'final test loss \(negative ELBO\): ([0-9.]+)', out).group(1))
    # Untrained, the decoder predicts 0.5 everywhere (about 64 * log 2 = 44 nats); after a
    # few epochs the bound is far tighter.
    assert final < 0.7 * initial, (initial, final)
    assert (tmp_path / 'model_epoch_5').exists()


def test_example_crf_tagger_smoke(tmp_path):
    out = _run_example('examples/crf_tagger.py', '--epochs', '3', '--out', str(tmp_path))
    chance = float(re.search(r'most-frequent-tag accuracy \(chance level\): ([0-9.]+)',
                             out).group(1))
    acc = float(re.search(r'final test accuracy: ([0-9.]+)', out).group(1))
    assert chance < 0.4 and acc > 0.8, (chance, acc)


def test_flake8_clean():
    """The code follows the lint configuration in setup.cfg (line length 99, pyflakes)."""
    pytest.importorskip('flake8')
    result = subprocess.run([sys.executable, '-m', 'flake8', 'chainlet', 'tests', 'examples',
                             'benchmarks', 'tools'], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]


def test_the_package_type_checks(tmp_path):
    """The type hints of every module of the package agree with how the code uses them, as
    mypy sees it."""
    pytest.importorskip('mypy')
    files = [str(f) for f in sorted(PKG.rglob('*.py'))]
    result = subprocess.run([sys.executable, '-m', 'mypy', '--ignore-missing-imports',
                             '--follow-imports=silent', '--cache-dir', str(tmp_path), *files],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]


def test_documentation_links_resolve():
    """Every relative link in the README and docs/ points to an existing file."""
    pages = [ROOT / 'README.md'] + sorted((ROOT / 'docs').rglob('*.md'))
    broken = []
    for page in pages:
        for target in re.findall(r'\]\(([^)\s]+)\)', page.read_text(encoding='utf-8')):
            if target.startswith(('http://', 'https://', 'mailto:', '#')):
                continue
            path = (page.parent / target.split('#')[0]).resolve()
            if not path.exists():
                broken.append(f'{page.relative_to(ROOT)} -> {target}')
    assert not broken, broken


def _extras():
    # pyproject's [project.optional-dependencies] table, read without tomllib (Python 3.10).
    text = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    table = text.split('[project.optional-dependencies]', 1)[1].split('\n[', 1)[0]
    return set(re.findall(r'^([A-Za-z0-9_-]+)\s*=', table, re.M))


def test_every_recommended_extra_exists():
    # Issue 13, item 9: messages recommended the extras graphviz and progress, which
    # pip would install as plain chainlet (with only a warning).
    extras = _extras()
    named = {}
    for base in ('chainlet', 'docs', 'examples'):
        for path in (ROOT / base).rglob('*'):
            if path.suffix in ('.py', '.md'):
                text = path.read_text('utf-8')
                for extra in re.findall(r'chainlet-dl\[([A-Za-z0-9_-]+)\]', text):
                    named.setdefault(extra, path.relative_to(ROOT))
    missing = {e: str(p) for e, p in named.items() if e not in extras}
    assert not missing, f'extras recommended but not in pyproject.toml: {missing}'


def test_license_file_matches_pyproject():
    pyproject = (ROOT / 'pyproject.toml').read_text(encoding='utf-8')
    assert re.search(r'license\s*=\s*\{\s*text\s*=\s*"MIT"', pyproject)
    text = (ROOT / 'LICENSE').read_text(encoding='utf-8')
    assert text.startswith('MIT License') and 'chainlet developers' in text
    assert 'chainlet developers' in pyproject


def test_trainer_tutorial_resumes_from_a_snapshot_it_writes(tmp_path):
    # The tutorial's trainer (digits, batch 32, a snapshot per epoch, 20 epochs) and the file
    # name its resume snippet loads; a one-layer model keeps this fast.
    pytest.importorskip('sklearn')
    import chainlet
    import chainlet.links as L
    from chainlet import training
    from chainlet.training import extensions
    text = (ROOT / 'docs' / 'trainer_tutorial.md').read_text(encoding='utf-8')
    assert "training.Trainer(updater, (20, 'epoch'), out='result')" in text
    documented = re.search(r"load_npz\('result/(snapshot_iter_\d+)', trainer\)", text).group(1)
    train, _ = chainlet.datasets.get_digits()
    model = L.Classifier(L.Linear(64, 10))
    optimizer = chainlet.optimizers.SGD().setup(model)
    updater = training.updaters.StandardUpdater(
        chainlet.iterators.SerialIterator(train, 32), optimizer)
    trainer = training.Trainer(updater, (20, 'epoch'), out=str(tmp_path))
    trainer.extend(extensions.snapshot(), trigger=(1, 'epoch'))
    trainer.run()
    assert (tmp_path / documented).exists()
    resumed = training.Trainer(training.updaters.StandardUpdater(
        chainlet.iterators.SerialIterator(train, 32), optimizer), (21, 'epoch'))
    chainlet.serializers.load_npz(str(tmp_path / documented), resumed)
    assert resumed.updater.iteration == int(documented.rsplit('_', 1)[1])
