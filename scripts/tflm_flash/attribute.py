#!/usr/bin/env python3
"""Splits the measured firmwares of one configuration into arenaplan's flash table.
usage: attribute.py CPU LIB OPT   (after measure.py; reads sizes-CFG.json and out/CFG/*.map)
runtime = flash(runtime firmware) - 16 (its dummy model). Every input section (output section,
section name, object) a one-kernel firmware links beyond the runtime firmware is attributed to
that kernel; a section several one-kernel firmwares link forms a shared group (the set of
kernels that pull it in), charged once. own(k) = flash(k alone) - flash(runtime) - groups of k:
so a one-kernel firmware is predicted exactly, and strings and padding (no section of their
own) stay with the kernel. Prints the table and predicted vs measured for every firmware."""
import collections, json, sys
cpu, lib, opt = sys.argv[1:4]
cfg = f'{cpu}-{lib}-{opt}'
RAM = ('.bss', '.heap', '.stack', '.stack_dummy', '.noinit', '.comment', '.ARM.attributes', '.debug', '/DISCARD/')
def sections(path):
    items = {}
    lines = open(path).read().split('Linker script and memory map', 1)[1].splitlines()
    out, pending = None, None
    for line in lines:
        if line and not line[0].isspace():
            tok = line.split()
            out = tok[0] if tok[0].startswith('.') or tok[0].startswith('/') else None
            continue
        if out is None or out.startswith(RAM) or any(out.startswith(r) for r in RAM): continue
        tok = line.split()
        if not tok: continue
        if pending is not None:
            if len(tok) >= 3 and tok[0].startswith('0x') and tok[1].startswith('0x'):
                items[(out, pending, ' '.join(tok[2:]))] = int(tok[1], 16)
            pending = None
            continue
        if line.startswith(' .') or line.startswith(' COMMON'):
            if len(tok) == 1: pending = tok[0]
            elif len(tok) >= 4 and tok[1].startswith('0x'):
                items[(out, tok[0], ' '.join(tok[3:]))] = int(tok[2], 16)
    return items
sizes = {r['case']: r for r in json.load(open(f'sizes-{cfg}.json'))}
base = sections(f'out/{cfg}/runtime.map')
rt = sizes['runtime']['flash'] - sizes['runtime']['model_bytes']
kernels = [c[2:] for c in sizes if c.startswith('k_')]
holders = collections.defaultdict(set)
sec_size = {}
for k in kernels:
    for key, size in sections(f'out/{cfg}/k_{k}.map').items():
        if key in base or size == 0: continue
        holders[key].add(k)
        sec_size[key] = size
groups = collections.Counter()
for key, ks in holders.items():
    if len(ks) > 1: groups[tuple(sorted(ks))] += sec_size[key]
own = {}
for k in kernels:
    alone = sizes[f'k_{k}']['flash'] - sizes['runtime']['flash']
    own[k] = alone - sum(b for g, b in groups.items() if k in g)
def predict(ops, model_bytes):
    return model_bytes + rt + sum(own[k] for k in ops) + sum(b for g, b in groups.items() if set(g) & set(ops))
table = {'config': cfg, 'runtime_bytes': rt, 'own': own,
         'shared': [{'kinds': list(g), 'bytes': b} for g, b in sorted(groups.items(), key=lambda x: -x[1])],
         'firmwares': []}
for case, r in sizes.items():
    p = predict(r['kernels'], r['model_bytes'])
    table['firmwares'].append({'case': case, 'model': r['model'], 'model_bytes': r['model_bytes'], 'kernels': r['kernels'],
                               'text': r['text'], 'data': r['data'], 'bss': r['bss'], 'measured_flash': r['flash'],
                               'predicted_flash': p})
    if not case.startswith('k_'):
        print(f"{case:40s} measured {r['flash']:8d} predicted {p:8d} error {100.0*(p-r['flash'])/r['flash']:+6.2f} %")
json.dump(table, open(f'table-{cfg}.json', 'w'), indent=1)
print(f'runtime {rt}; kernels own:', own)
print('shared groups:', len(groups))
