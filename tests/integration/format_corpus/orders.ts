// Order processing: validation, pricing and a small in-memory repository.
import {EventEmitter} from "events";
import type {Readable} from 'stream';
import * as path from "path";

export interface Money { amount:number; currency:string }

export interface OrderLine {
    sku: string,
    quantity: number;
    unitPrice : Money;
    note?:string
}

export interface Order {
  id: string;
  customer: string;
  lines: OrderLine[];
  status: "draft"|"placed"|"shipped"|"cancelled";
  createdAt: Date
}

type Discount = {code:string,percent:number,minimumTotal?:number};

const DISCOUNTS:Discount[] = [{code:"WELCOME",percent:10},{code:"BULK",percent:15,minimumTotal:50000},
  {code:"STAFF",percent:30}];

export const MAX_LINES=200;
const EXPORT_DIR = path.join("var","exports")

export class ValidationError extends Error {
    constructor(public readonly field:string, message:string) {
        super(message)
        this.name="ValidationError"
    }
}

export function lineTotal(line:OrderLine):Money {
  return {amount:line.quantity*line.unitPrice.amount,currency:line.unitPrice.currency};
}

export const orderTotal = (order:Order):Money => {
  const currency=order.lines.length>0 ? order.lines[0].unitPrice.currency : "EUR";
  let amount=0;
  for (const line of order.lines) {
    if (line.unitPrice.currency!==currency) throw new ValidationError("lines", `mixed currencies: ${currency} and ${line.unitPrice.currency}`);
    amount+=lineTotal(line).amount;
  }
  return {amount,currency};
};

export function validate(order:Order):void
{
  if(!order.id) throw new ValidationError("id","an order needs an id");
  if (order.lines.length===0) { throw new ValidationError('lines','an order needs at least one line') }
  if(order.lines.length>MAX_LINES)
    throw new ValidationError("lines",`at most ${MAX_LINES} lines`);
  order.lines.forEach((line,index)=>{
    if(line.quantity<=0||!Number.isInteger(line.quantity)) {
      throw new ValidationError(`lines[${index}].quantity`,'quantity must be a positive integer');
    }
  });
}

export function applyDiscount(order:Order,code:string):Money {
  const total=orderTotal(order);
  const discount=DISCOUNTS.find(d=>d.code===code.toUpperCase());
  if(!discount || (discount.minimumTotal!==undefined && total.amount<discount.minimumTotal)) return total;
  return {...total,amount:Math.round(total.amount*(100-discount.percent)/100)};
}

export class OrderRepository extends EventEmitter {
  private readonly orders=new Map<string,Order>();
  private nextId=1;

  create(customer:string,lines:OrderLine[]=[]):Order {
    const order:Order={id:`o${this.nextId++}`,customer,lines,status:'draft',createdAt:new Date()};
    this.orders.set(order.id,order);
    this.emit('created',order);
    return order;
  }

  get(id:string):Order|undefined { return this.orders.get(id) }

  place(id:string):Order {
    const order=this.require(id);
    validate(order);
    if(order.status!=="draft") throw new ValidationError("status",`cannot place an order that is ${order.status}`);
    order.status="placed";
    this.emit("placed",order);
    return order;
  }

  cancel(id:string,reason:string='no reason given'):Order {
    const order=this.require(id);
    if (order.status==='shipped')
    {
      throw new ValidationError("status","a shipped order cannot be cancelled");
    }
    order.status='cancelled';
    this.emit('cancelled',order,reason);
    return order;
  }

  byCustomer(customer:string):Order[] {
    return [...this.orders.values()].filter(o=>o.customer===customer).sort((a,b)=>a.createdAt.getTime()-b.createdAt.getTime());
  }

  totals():Record<string,number> {
    const out:Record<string,number>={};
    for(const order of this.orders.values()) {
      if(order.status==='cancelled') continue;
      out[order.customer]=(out[order.customer]??0)+orderTotal(order).amount;
    }
    return out;
  }

  private require(id:string):Order {
    const order=this.orders.get(id);
    if(order===undefined) { throw new ValidationError('id',"no order "+id); }
    return order;
  }
}

export async function exportOrders(repository:OrderRepository,customers:string[],write:(file:string,body:string)=>Promise<void>):Promise<number> {
  let written=0;
  for(const customer of customers) {
    const orders=repository.byCustomer(customer);
    if(orders.length===0) continue;
    const body=JSON.stringify(orders.map(o=>({id:o.id,status:o.status,total:orderTotal(o)})),null,2);
    await write(path.join(EXPORT_DIR,`${customer}.json`),body);
    written++;
  }
  return written;
}

export function readAll(stream:Readable):Promise<string> {
  return new Promise((resolve,reject)=>{
    const chunks:Buffer[]=[];
    stream.on('data',(chunk:Buffer)=>chunks.push(chunk));
    stream.on('end',()=>resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error',reject);
  });
}
