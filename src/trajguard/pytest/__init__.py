"""The pytest plugin (frozen mode): ``golden_trajectory`` and ``llm_cassette``.

The plugin module is :mod:`trajguard.pytest.plugin` (the ``pytest11`` entry point); it holds hooks
and fixtures only. Nothing is imported here, so loading the plugin stays cheap.
"""
