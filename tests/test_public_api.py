"""The public API: every package lists its names in ``__all__``, each resolves lazily and has a docstring."""

import importlib
import inspect
import subprocess
import sys

import pytest

from assay.core.lazy import lazy_exports

PACKAGES = ["core", "pipeline", "stats", "artifacts", "data", "judge", "rag", "relevance", "study", "queue", "release",
            "project"]
# Public values that are not classes or functions (a constant or a type alias has no docstring of its own).
VALUES = {"assay.pipeline.DEFAULT_PARTS", "assay.pipeline.PARTS", "assay.pipeline.PIN_FILE", "assay.pipeline.Layout"}
HEAVY = ("numpy", "pandas", "sklearn", "scipy")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_and_has_its_own_docstring(package):
    module = importlib.import_module(f"assay.{package}")
    assert module.__all__ == sorted(set(module.__all__)) and module.__all__
    for name in module.__all__:
        value = getattr(module, name)
        if f"assay.{package}.{name}" in VALUES:
            continue
        assert inspect.isclass(value) or inspect.isfunction(value), f"assay.{package}.{name}"
        assert value.__doc__ and value.__doc__.strip(), f"assay.{package}.{name} has no docstring"
        assert name in dir(module)


def test_importing_every_package_imports_no_numeric_library():
    code = ("import sys\n" + "".join(f"import assay.{p}\n" for p in PACKAGES)
            + f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_an_unlisted_name_is_an_attribute_error_and_a_name_has_one_home():
    import assay.stats

    with pytest.raises(AttributeError, match="no_such_name"):
        assay.stats.no_such_name  # noqa: B018
    with pytest.raises(ValueError, match="one home"):
        lazy_exports("pkg", {"pkg.a": ["x"], "pkg.b": ["x"]})
