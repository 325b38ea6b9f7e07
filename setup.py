"""The compiled part of newscrawl, and what `scrapyd-deploy` needs.

The extension newscrawl.extract._speedups (Cython, newscrawl/extract/_speedups.pyx) is optional:
without Cython, lxml's headers or a C compiler the install still succeeds and the pure-Python code
runs instead.  `pip install -e .` (requirements.txt's last line) builds it beside its .pyx in the
checkout.  `scrapyd-deploy` builds its egg with ``python setup.py bdist_egg`` (without this file
it writes its own, which ignores pyproject.toml's package data); an egg is a zip, from which no
extension imports, so it gets none.  Everything else is in pyproject.toml.
"""

import sys

from setuptools import Extension, setup


def ext_modules() -> list:
    if "bdist_egg" in sys.argv:
        return []
    try:
        import lxml
        from Cython.Build import cythonize
    except ImportError:  # the pure-Python fallback runs
        return []
    speedups = Extension("newscrawl.extract._speedups", ["newscrawl/extract/_speedups.pyx"],
                         include_dirs=lxml.get_include())
    try:
        extensions = cythonize([speedups], compiler_directives={"language_level": 3}, quiet=True)
    except Exception as exc:  # noqa: BLE001 - a Cython that cannot compile it: the fallback runs
        print(f"newscrawl: not compiling newscrawl/extract/_speedups.pyx ({exc})", file=sys.stderr)
        return []
    for extension in extensions:
        extension.optional = True  # a failed C build warns; cythonize does not copy the flag
    return extensions


setup(ext_modules=ext_modules())
