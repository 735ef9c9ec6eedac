// Seed 001 part C: the mean temperature of a city in kelvin, from every provider queried at once.
// The first failure decides the answer, and the requests still running are aborted.
import { TEXT_CONTENT_TYPE } from '../common/content-types';
import { AppError } from '../common/errors';
import { ProviderFailure, type TemperatureProvider } from './providers/provider';

/** The longest city name asked for (GET /weather/:city). */
export const MAX_CITY_LENGTH = 100;

export interface WeatherResult {
  city: string;
  temp: number;
  took: string;
}

/** 500 with a plain-text body naming the provider and the cause (seed 001's error row). */
export class WeatherProviderError extends AppError {
  constructor(provider: string, cause: string) {
    super(500, `weather provider ${provider} ${cause}`, { 'Content-Type': TEXT_CONTENT_TYPE });
  }
}

export async function averageTemperature(providers: readonly TemperatureProvider[], city: string): Promise<WeatherResult> {
  const started = process.hrtime.bigint();
  const controller = new AbortController();
  const readings = providers.map((provider) =>
    provider.kelvin(city, controller.signal).catch((err: unknown) => {
      // Only the first failure is reported; later ones are the aborts it caused.
      controller.abort();
      const cause = err instanceof ProviderFailure ? err.message : 'failed';
      throw new WeatherProviderError(provider.name, cause);
    }),
  );
  // Promise.all handles every rejection, so an aborted straggler never becomes an unhandled one.
  const kelvins = await Promise.all(readings);
  const temp = kelvins.reduce((sum, kelvin) => sum + kelvin, 0) / kelvins.length;
  // Each reading is a finite number, but huge ones overflow the sum: that is unreadable data too.
  if (!Number.isFinite(temp))
    throw new WeatherProviderError(providers.map((provider) => provider.name).join(' and '), 'returned temperatures too large to average');
  const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { city, temp, took: `${tookMs.toFixed(1)}ms` };
}
