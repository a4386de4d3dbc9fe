# Inventory service: a small in-memory store with pricing rules.
import os,sys
import json
from dataclasses import dataclass,field
from typing import Dict,List,Optional
import functools


DEFAULT_CURRENCY='EUR'
TAX_RATES = {'standard':0.2,'reduced' : 0.055,
    'zero':0.0}
LOG_FORMAT='%(asctime)s %(levelname)s %(message)s'

def retry(times = 3):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args,**kwargs):
            last=None
            for attempt in range( times ):
                try:
                    return fn(*args,**kwargs)
                except IOError as error:  # retried
                    last=error
            raise last
        return inner
    return wrap
@dataclass
class Item:
    sku : str
    name:str
    price_cents : int
    tags : List[str]=field(default_factory=list)
    tax_class:str='standard'

    def price_with_tax(self,rate_table = None):
        table=rate_table or TAX_RATES
        rate=table.get(self.tax_class,table['standard'])
        return int(round(self.price_cents*(1+rate)))

    def describe(self):
        return '%s (%s): %d cents'%(self.name,self.sku,self.price_cents)
class Inventory(object):
    '''Items by SKU, with the count on hand.'''

    def __init__(self,path = None,currency=DEFAULT_CURRENCY):
        self.path=path
        self.currency=currency
        self.items : Dict[str,Item]={}
        self.counts={}
        self.history=[ ]

    def add(self,item,count=1):
        if item.sku in self.items :
            self.counts[item.sku]+=count
        else:
            self.items[item.sku]=item
            self.counts[item.sku]=count
        self.history.append(('add',item.sku,count))
        return self.counts[item.sku]

    def remove(self,sku,count=1):
        if sku not in self.items: raise KeyError('unknown sku: '+sku)
        left=self.counts[sku]-count
        if left<0:
            raise ValueError('only %d of %s left'%(self.counts[sku],sku))
        self.counts[sku]=left
        self.history.append(('remove',sku,count))
        return left

    def total_value(self,with_tax=False):
        total=0
        for sku,item in self.items.items():
            unit=item.price_with_tax() if with_tax else item.price_cents
            total+=unit*self.counts.get(sku,0)
        return total

    def find(self,tag=None,max_price=None,min_count = 0):
        found=[]
        for sku,item in sorted(self.items.items()):
            if tag is not None and tag not in item.tags: continue
            if max_price is not None and item.price_cents>max_price:
                continue
            if self.counts.get(sku,0)<min_count: continue
            found.append(item)
        return found

    @retry(times=5)
    def save(self):
        data={'currency':self.currency,'items':[{'sku':i.sku,'name':i.name,'price_cents':i.price_cents,'tags':i.tags,'tax_class':i.tax_class,'count':self.counts[i.sku]} for i in self.items.values()]}
        with open(self.path,'w') as out:
            json.dump(data,out,indent=2,sort_keys=True)

    @classmethod
    def load(cls,path):
        with open(path) as source:
            data=json.load(source)
        inventory=cls(path,currency=data.get('currency',DEFAULT_CURRENCY))
        for entry in data['items']:
            item=Item(entry['sku'],entry['name'],entry['price_cents'],tags=entry.get('tags',[]),tax_class=entry.get('tax_class','standard'))
            inventory.add(item,entry['count'])
        return inventory

    @property
    def skus(self):
        return sorted( self.items )

    def __len__(self): return len(self.items)

    def __repr__(self):
        return 'Inventory(%r, %d items)'%(self.path,len(self))


def report(inventory,out=sys.stdout,limit = 10):
    '''Prints the most valuable lines.'''
    lines=[]
    for sku in inventory.skus:
        item=inventory.items[sku]
        lines.append((item.price_cents*inventory.counts[sku],sku,item.name))
    lines.sort(reverse = True)
    for value,sku,name in lines[:limit]:
        print('%-10s %-30s %10d'%(sku,name,value),file=out)
    print('total: %d %s'%(inventory.total_value(),inventory.currency),file = out)


def parse_args(argv):
    options={'path':None,'limit':10,'verbose':False}
    rest=list(argv)
    while rest:
        arg=rest.pop(0)
        if arg=='--limit':
            options['limit']=int(rest.pop(0))
        elif arg in ('-v','--verbose'):
            options['verbose']=True
        else:
            options['path']=arg
    return options


def main(argv=None):
    options=parse_args(argv if argv is not None else sys.argv[1:])
    if options['path'] is None or not os.path.exists(options['path']):
        print('usage: inventory.py [--limit N] [-v] FILE',file=sys.stderr)
        return 2
    inventory=Inventory.load(options['path'])
    if options['verbose']: print(repr(inventory))
    report(inventory,limit=options['limit'])
    return 0


if __name__=='__main__':
    sys.exit(main())
