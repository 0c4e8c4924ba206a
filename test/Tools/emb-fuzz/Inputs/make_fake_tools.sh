#!/bin/sh
# make_fake_tools.sh DIR PYTHON: emb-opt, emb-run and emb-compile in DIR,
# each fake_tool.py under the tool's name.
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
