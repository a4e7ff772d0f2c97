from trajguard.cli import entry

entry()
