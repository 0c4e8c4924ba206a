"""Lists the one wheel in a folder (wheel.test): each file under emb_torch/lib/ with its size,
then the Requires-Dist lines of its METADATA.

    list_wheel.py <dist folder>
"""
import os
import sys
import zipfile

dist = sys.argv[1]
wheels = [f for f in os.listdir(dist) if f.endswith(".whl")]
if len(wheels) != 1:
    sys.exit("%s: %d wheels, not one" % (dist, len(wheels)))
with zipfile.ZipFile(os.path.join(dist, wheels[0])) as z:
    for info in sorted(z.infolist(), key=lambda i: i.filename):
        if info.filename.startswith("emb_torch/lib/"):
            print(info.filename, info.file_size)
    meta = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
    for line in z.read(meta[0]).decode().splitlines():
        if line.startswith("Requires-Dist:"):
            print(line)
