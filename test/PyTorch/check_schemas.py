"""Every torch.library.custom_op in python/emb_torch (a decorated function, or a function passed
to one: `op = torch.library.custom_op("emb::op", ...)(_op)`, which keeps `_op` callable as the
op's kernel) has a signature torch.library can turn into
an operator schema: each parameter and the return annotated with a type infer_schema accepts
(torch/_library/infer_schema.py, PyTorch 2.4 and newer). An annotation it refuses (List[str], say)
fails only at import under such a PyTorch, so this reads the sources instead: no torch needed.

    python3 test/PyTorch/check_schemas.py [python/emb_torch]

Prints one line per op and a summary; exits nonzero naming each refused annotation.
"""
import ast
import os
import sys

# The element types infer_schema takes, as written in emb_torch's annotations, alone, Optional,
# or in a List/Sequence (Tensor also Optional inside a list). An Optional list holds numbers
# only: Optional[List[Tensor]] is refused (PyTorch 2.11: "unsupported type"); a tensor list that
# may be absent is an empty List[Tensor].
SCALARS = {"Tensor", "torch.Tensor", "int", "float", "bool", "str", "torch.dtype", "torch.device",
           "torch.types.Number"}
LISTABLE = {"Tensor", "torch.Tensor", "int", "float", "bool"}
OPTIONAL_LISTABLE = {"int", "float", "bool"}
RETURNS = {"Tensor", "torch.Tensor", "int", "float", "bool", "None"}


def text(node):
    return ast.unparse(node).replace("typing.", "")


def split(node):
    """(outer, inner) of X[Y], or (X, None)."""
    if isinstance(node, ast.Subscript):
        return text(node.value), node.slice
    return text(node), None


def param_ok(node):
    outer, inner = split(node)
    if inner is None:
        return outer in SCALARS
    if outer == "Optional":
        i_outer, i_inner = split(inner)
        if i_inner is None:
            return i_outer in SCALARS
        return i_outer in ("List", "Sequence", "list") and text(i_inner) in OPTIONAL_LISTABLE
    if outer in ("List", "Sequence", "list"):
        i_outer, i_inner = split(inner)
        if i_inner is None:
            return i_outer in LISTABLE
        # List[Optional[Tensor]]
        return i_outer == "Optional" and text(i_inner) in ("Tensor", "torch.Tensor")
    return False


def return_ok(node):
    if node is None:
        return False
    outer, inner = split(node)
    if inner is None:
        return outer in RETURNS
    if outer in ("Tuple", "tuple"):
        elts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
        return all(text(e) in ("Tensor", "torch.Tensor") for e in elts)
    if outer in ("List", "list"):
        return text(inner) in ("Tensor", "torch.Tensor")
    return False


def is_custom_op(decorator):
    call = decorator.func if isinstance(decorator, ast.Call) else decorator
    return text(call) in ("torch.library.custom_op", "custom_op")


def registered(tree):
    """(op name, FunctionDef) of each custom_op of the module `tree`: decorated functions, then
    module functions passed by name to a custom_op call with a literal op name."""
    defs = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        defs.setdefault(fn.name, fn)
        decorators = [d for d in fn.decorator_list if is_custom_op(d)]
        if decorators:
            yield ast.literal_eval(decorators[0].args[0]), fn
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Call)
                and is_custom_op(node.func) and node.func.args
                and isinstance(node.func.args[0], ast.Constant) and len(node.args) == 1
                and isinstance(node.args[0], ast.Name) and node.args[0].id in defs):
            yield node.func.args[0].value, defs[node.args[0].id]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "emb_torch")
    ops, bad = 0, []
    for name in sorted(os.listdir(root)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(root, name)
        tree = ast.parse(open(path).read(), path)
        for op, fn in registered(tree):
            ops += 1
            args = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs
            for a in args:
                if a.annotation is None or not param_ok(a.annotation):
                    bad.append("%s:%d: %s: parameter %s: %s" % (
                        name, fn.lineno, op, a.arg,
                        "no annotation" if a.annotation is None else text(a.annotation)))
            if not return_ok(fn.returns):
                bad.append("%s:%d: %s: return: %s" % (
                    name, fn.lineno, op, "no annotation" if fn.returns is None
                    else text(fn.returns)))
            print("op %s" % op)
    for b in bad:
        print("refused: %s" % b)
    print("%d ops, %d refused annotations" % (ops, len(bad)))
    return 1 if bad or ops == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
