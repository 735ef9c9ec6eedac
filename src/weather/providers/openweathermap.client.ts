// OpenWeatherMap-shaped provider: GET <url>?APPID=<key>&q=<city>, kelvin in main.temp.
import { getJson, numberAt } from './http-json';
import { ProviderFailure, type TemperatureProvider } from './provider';

export function createOpenWeatherMapProvider(options: { url: string; apiKey: string | null; timeoutMs: number }): TemperatureProvider {
  return {
    name: 'openweathermap',
    async kelvin(city, signal) {
      if (!options.apiKey) throw new ProviderFailure('has no API key (set OPENWEATHERMAP_API_KEY)');
      const data = await getJson(options.url, { APPID: options.apiKey, q: city }, options.timeoutMs, signal);
      return numberAt(data, ['main', 'temp']);
    },
  };
}
