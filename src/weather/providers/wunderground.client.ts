// Weather Underground-shaped provider: GET <url>/api/<key>/conditions/q/<city>.json, Celsius in
// current_observation.temp_c.
import { getJson, numberAt } from './http-json';
import { ProviderFailure, type TemperatureProvider } from './provider';

const CELSIUS_TO_KELVIN = 273.15;

export function createWundergroundProvider(options: { url: string; apiKey: string | null; timeoutMs: number }): TemperatureProvider {
  return {
    name: 'wunderground',
    async kelvin(city, signal) {
      if (!options.apiKey) throw new ProviderFailure('has no API key (set WUNDERGROUND_API_KEY)');
      // Both go into the path, so each is encoded as one segment ("/", "?", "#" and ".." included).
      const url = `${options.url}/api/${encodeURIComponent(options.apiKey)}/conditions/q/${encodeURIComponent(city)}.json`;
      const data = await getJson(url, undefined, options.timeoutMs, signal);
      return numberAt(data, ['current_observation', 'temp_c']) + CELSIUS_TO_KELVIN;
    },
  };
}
