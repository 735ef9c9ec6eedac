// Named integer sequences, e.g. the users' `uid`. An atomic upsert-and-increment hands out each value
// once, even to concurrent callers and across server instances; values are never reused.
import { Schema, model } from 'mongoose';

interface Counter {
  _id: string;
  value: number;
}

const CounterModel = model<Counter>(
  'Counter',
  new Schema<Counter>({ _id: { type: String, required: true }, value: { type: Number, required: true } }, { versionKey: false }),
);

export async function nextSequenceValue(name: string): Promise<number> {
  const counter = await CounterModel.findOneAndUpdate(
    { _id: name },
    { $inc: { value: 1 } },
    { upsert: true, returnDocument: 'after', lean: true },
  );
  return counter!.value;
}
