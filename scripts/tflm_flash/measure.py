#!/usr/bin/env python3
"""Links the measurement firmwares of one configuration and records arm-none-eabi-size of each.
usage: measure.py CPU LIB OPT MODEL.tflite...   (run in fw/; the library from ../Makefile must exist)
Cases: runtime (no kernel, a 16-byte dummy model), one firmware per kernel (runtime + that kernel),
all (every kernel), and per model: its bytes + exactly the kernels it uses, from graphs/NAME.json
(`arenaplan import NAME.tflite -o graphs/NAME.json`; none of the measured models has an
all-constant op the import folds, so these are every operator's kind, as tflm_kernel_kinds gives)."""
import json, os, subprocess, sys
cpu, lib, opt = sys.argv[1:4]
models = sys.argv[4:]
ARCH = {'m4f': '-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb',
        'm7': '-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard -mthumb',
        'm55': '-mcpu=cortex-m55 -mfloat-abi=hard -mthumb'}[cpu]
cfg = f'{cpu}-{lib}-{opt}'
out = f'out/{cfg}'
os.makedirs(out, exist_ok=True)
libpath = f'../out/{cfg}/libtflm.a'
CXXFLAGS = (f'{ARCH} -{opt} -fno-unwind-tables -fno-asynchronous-unwind-tables -ffunction-sections -fdata-sections '
            '-DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON -fsigned-char -std=c++17 -fno-rtti -fno-exceptions '
            '-fno-threadsafe-statics -I../src -I../fb/include -I../gemmlowp -I../ruy -w' + (' -DCMSIS_NN' if lib == 'cmsis' else ''))
def sh(cmd):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if r.returncode: sys.exit(f'failed: {cmd}\n{r.stderr[-3000:]}')
    return r.stdout
for src in ('main', 'regs'):
    o = f'{out}/{src}.o'
    if not os.path.exists(o): sh(f'nice -n 10 arm-none-eabi-g++ {CXXFLAGS} -c {src}.cc -o {o}')
kernels = open('kernels.txt').read().split()
def model_obj(path):
    name = os.path.basename(path).replace('.tflite', '').replace('.bin', '')
    o = f'out/{cpu}-model-{name}.o'
    if not os.path.exists(o): sh(f'arm-none-eabi-gcc {ARCH} -c model.S -DMODEL_FILE=\'"{os.path.abspath(path)}"\' -o {o}')
    return o
def link(case, ops, model):
    tbl = f'{out}/{case}.ops.c'
    with open(tbl, 'w') as f:
        for k in ops: f.write(f'void reg_{k}(void*);\n')
        f.write('void (*const g_ops[])(void*) = {' + ', '.join(f'reg_{k}' for k in ops) + ('' if ops else '0') + '};\n')
        f.write(f'const int g_op_count = {len(ops)};\n')
    sh(f'arm-none-eabi-gcc {ARCH} -Os -c {tbl} -o {tbl}.o')
    elf = f'{out}/{case}.elf'
    sh(f'arm-none-eabi-g++ {ARCH} -{opt} {out}/main.o {out}/regs.o {tbl}.o {model_obj(model)} {libpath} '
       f'--specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -Wl,-Map={out}/{case}.map -o {elf}')
    text, data, bss = map(int, sh(f'arm-none-eabi-size {elf}').splitlines()[1].split()[:3])
    return {'case': case, 'kernels': ops, 'model': os.path.basename(model), 'model_bytes': os.path.getsize(model),
            'text': text, 'data': data, 'bss': bss, 'flash': text + data}
results = [link('runtime', [], 'tiny.bin')]
for k in kernels: results.append(link(f'k_{k}', [k], 'tiny.bin'))
results.append(link('all', kernels, 'tiny.bin'))
for m in models:
    name = os.path.basename(m).replace('.tflite', '')
    g = json.load(open(f'graphs/{name}.json'))
    ops = sorted({o['kind'] for o in g['ops']})
    missing = [k for k in ops if k not in kernels]
    if missing: print(f'{name}: no kernel for {missing}, skipped', file=sys.stderr); continue
    results.append(link(f'model_{name}', ops, m))
json.dump(results, open(f'sizes-{cfg}.json', 'w'), indent=1)
for r in results: print(f"{r['case']:40s} text {r['text']:7d} data {r['data']:5d} bss {r['bss']:6d} flash {r['flash']:7d}")
