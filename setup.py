"""Only for `scrapyd-deploy`, which builds its egg with ``python setup.py bdist_egg``
(without this file it writes its own, which ignores pyproject.toml's package data).
Everything else is in pyproject.toml."""

from setuptools import setup

setup()
