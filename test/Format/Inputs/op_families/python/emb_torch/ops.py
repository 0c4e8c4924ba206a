@torch.library.custom_op("emb::bar", mutates_args=())
def bar(x):
    lib.embrtBar(ctx, args)


@torch.library.custom_op("emb::foo", mutates_args=())
def foo(x):
    lib.embrtFooWorkspaceSize(ctx, args, size)
    lib.embrtFoo(ctx, args)
    lib.embrtVersion.restype = ctypes.c_char_p
    lib.embrtVersion()
