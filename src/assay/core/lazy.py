"""Package exports resolved on first use (PEP 562), so importing a package stays cheap.

A package ``__init__`` names where each public name lives; the name's module is imported only when
the name is first read (``assay.stats.proportion_ci``, ``from assay.stats import proportion_ci``).
``import assay.stats`` therefore imports no numpy, pandas or scikit-learn, and a stage's
dependency list holds only the modules it uses.

>>> names, getattr_, dir_ = lazy_exports("assay.core", {"assay.core.fmt": ("num",)})
>>> names
['num']
>>> getattr_("num").__module__
'assay.core.fmt'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, Iterable[str]]
                 ) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package`` from ``{module: names}``.

    Use as ``__all__, __getattr__, __dir__ = lazy_exports(__name__, {...})`` at the end of a
    package ``__init__``. ``__all__`` is sorted. Reading a name not listed raises
    ``AttributeError`` as a plain module would; a name listed under two modules raises
    ``ValueError`` at import, since one name has one home, and so does a name that is also a
    submodule's (``assay.release.verify``): importing the submodule would replace it.
    """
    where: dict[str, str] = {}
    for module, names in homes.items():
        for name in names:
            if name in where:
                raise ValueError(f"lazy_exports: {package}.{name} is listed under {where[name]} and {module}; "
                                 "give each public name one home")
            where[name] = module
    public = sorted(where)
    from importlib.util import find_spec

    shadowed = [name for name in public if find_spec(f"{package}.{name}") is not None]
    if shadowed:  # importing the submodule would replace the name on the package with the module
        raise ValueError(f"lazy_exports: {package} exports {', '.join(shadowed)}, which a submodule of the same name "
                         "would replace once imported; export it from its own module only")

    def getattr_(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(where[name]), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def dir_() -> list[str]:
        import sys

        return sorted({*vars(sys.modules[package]), *public})

    return public, getattr_, dir_
