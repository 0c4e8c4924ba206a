#define EMB_OP_FOO "emb.foo"
