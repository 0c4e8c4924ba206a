#!/bin/sh
# make_fake_tools.sh DIR PYTHON: emb-opt, emb-run and emb-compile in DIR,
# each fake_tool.py under the tool's name, and a fake mlir-opt that dies of
# SIGSEGV on planted_segv only when given --canonicalize (an upstream crash
# in a pass, not in the parser).
set -e
dir=$1
python=$("$2" -c 'import sys; print(sys.executable)')
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
for tool in emb-opt emb-run emb-compile; do
  cp "$here/fake_tool.py" "$dir/$tool.py"
  printf '#!/bin/sh\nexec "%s" "%s/%s.py" "$@"\n' "$python" "$dir" "$tool" > "$dir/$tool"
  chmod +x "$dir/$tool"
done
cat > "$dir/mlir-opt" <<'EOF2'
#!/bin/sh
for a in "$@"; do
  case "$a" in --canonicalize) canon=1 ;; *.mlir) file=$a ;; esac
done
if [ -n "$canon" ] && grep -q planted_segv "$file"; then
  kill -SEGV $$
fi
exit 0
EOF2
chmod +x "$dir/mlir-opt"
