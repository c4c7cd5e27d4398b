import json,sys,glob,os
a,b=sys.argv[1],sys.argv[2]
def bal(p):
    d=json.load(open(p)); r={}
    for run in d['runs']:
        r[run['policy']]=(run.get('makespan_s') or 0, sum(x['chunks'] for x in run['devices']))
    return r
for f in sorted(glob.glob(a+'/*.json')):
    n=os.path.basename(f)
    if n.startswith('dgx1'): continue
    x=bal(f); y=bal(os.path.join(b,n))
    line=n[:-5].ljust(22)
    for p in x:
        line+=' %s %.3f->%.3f(%d->%d)'%(p,x[p][0]*1e3,y[p][0]*1e3,x[p][1],y[p][1])
    print(line)
def sw(p):
    d=json.load(open(p)); return d
x=sw(a+'/dgx1_fh.json'); y=sw(b+'/dgx1_fh.json')
for r1,r2 in zip(x['rows'],y['rows']):
    m1={q['policy']:q['makespan_s'] for q in r1['runs']}; m2={q['policy']:q['makespan_s'] for q in r2['runs']}
    print('fh i%s b%s ms%s'%(r1.get('fma',r1.get('fma_per_item','?')),r1['bytes_per_item'],r1['target_ms']), ' '.join('%s %.3f->%.3f'%(p,m1[p]*1e3,m2[p]*1e3) for p in m1), 'ratio %.3f->%.3f'%(r1['ws_vs_best_baseline'],r2['ws_vs_best_baseline']))
print('losses', x['ws_losses'], '->', y['ws_losses'])
