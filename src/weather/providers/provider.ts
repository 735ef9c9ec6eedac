/** One external weather source. Implementations live beside this file and are listed in index.ts. */
export interface TemperatureProvider {
  /** Named in error messages, e.g. "openweathermap". */
  readonly name: string;
  /** The current temperature in kelvin; rejects with a ProviderFailure. Aborted through the signal. */
  kelvin(city: string, signal: AbortSignal): Promise<number>;
}

/** Why a provider gave no temperature, in words that never include the request URL or its key. */
export class ProviderFailure extends Error {
  constructor(cause: string) {
    super(cause);
    this.name = 'ProviderFailure';
  }
}
