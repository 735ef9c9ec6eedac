// The providers GET /weather/:city averages over. A new provider is a file beside this one and a line here.
import type { Config } from '../../config';
import { createOpenWeatherMapProvider } from './openweathermap.client';
import type { TemperatureProvider } from './provider';
import { createWundergroundProvider } from './wunderground.client';

export function createProviders(weather: Config['weather']): TemperatureProvider[] {
  const { timeoutMs } = weather;
  return [
    createOpenWeatherMapProvider({ url: weather.openWeatherMapUrl, apiKey: weather.openWeatherMapApiKey, timeoutMs }),
    createWundergroundProvider({ url: weather.wundergroundUrl, apiKey: weather.wundergroundApiKey, timeoutMs }),
  ];
}
