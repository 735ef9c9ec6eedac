// Named integer sequences, e.g. the users' `uid`: each value is handed out once, to concurrent callers
// and across server instances, and never reused. The counter document's $inc proposes a value; a claim
// (a document whose _id is the name and the value) makes it ours, since a unique _id is the one write
// that is atomic on MongoDB and on FerretDB alike (FerretDB 1.x does not make $inc atomic, so two
// callers can be proposed the same value: the one whose claim fails asks again).
import { Schema, model } from 'mongoose';
import { isDuplicateKeyError } from './duplicate-key';

interface Counter {
  _id: string;
  value: number;
}

const CounterModel = model<Counter>(
  'Counter',
  new Schema<Counter>({ _id: { type: String, required: true }, value: { type: Number, required: true } }, { versionKey: false }),
);

const ClaimModel = model<{ _id: string }>(
  'CounterClaim',
  new Schema<{ _id: string }>({ _id: { type: String, required: true } }, { versionKey: false, collection: 'counter_claims' }),
);

/** Proposals a caller may lose before giving up: each loss means another caller got a value. */
const MAX_PROPOSALS = 1000;

async function propose(name: string): Promise<number> {
  const counter = await CounterModel.findOneAndUpdate(
    { _id: name },
    { $inc: { value: 1 } },
    { upsert: true, returnDocument: 'after', lean: true },
  );
  return counter!.value;
}

export async function nextSequenceValue(name: string): Promise<number> {
  for (let attempt = 0; attempt < MAX_PROPOSALS; attempt += 1) {
    let value: number;
    try {
      value = await propose(name);
    } catch (err) {
      if (isDuplicateKeyError(err)) continue; // two first upserts at once: the counter exists now
      throw err;
    }
    try {
      await ClaimModel.create({ _id: `${name}:${value}` });
      return value;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
    }
  }
  throw new Error(`no free value of the sequence ${name} after ${MAX_PROPOSALS} proposals`);
}
