"""Helpers shared by several test modules (the tests are not a package: pytest puts
``tests/support`` on ``sys.path``, see ``pythonpath`` in pyproject.toml)."""
