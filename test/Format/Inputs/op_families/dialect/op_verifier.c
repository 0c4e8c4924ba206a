static const Verifier verifiers[] = {
    {EMB_OP_FOO, verifyFoo},
};
