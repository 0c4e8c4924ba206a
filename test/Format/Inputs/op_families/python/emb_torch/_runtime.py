ENTRY_POINTS = [
    ("Bar", None, BarArgs), ("Foo", "FooWorkspaceSize", FooArgs)]
