// Weather aggregation (seed 001 part C): GET /hello and GET /weather/:city. Mounted on the main app
// and served alone on WEATHER_PORT. No caller credentials; the providers' keys come from config.
import { TEXT_CONTENT_TYPE } from '../common/content-types';
import { Router, type Request, type Response } from 'express';
import type { Config } from '../config';
import { AppError } from '../common/errors';
import { staticBody } from '../common/static-document';
import { createProviders } from './providers';
import * as weatherService from './weather.service';

// Text and JSON for programs need none of the pages' headers (CSP, frame options), only this one.
const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' };
/** GET /hello's answer; every app serves it among its static routes (app.ts). */
export const HELLO = staticBody('hello!', TEXT_CONTENT_TYPE);

export function createWeatherRouter(weather: Config['weather']): Router {
  const providers = createProviders(weather);
  const router = Router();

  router.get('/weather/:city', async (req: Request<{ city: string }>, res: Response) => {
    res.set(NOSNIFF);
    const { city } = req.params;
    if (city.trim() === '' || city.length > weatherService.MAX_CITY_LENGTH) {
      throw new AppError(400, `city must be 1 to ${weatherService.MAX_CITY_LENGTH} characters`, { 'Content-Type': TEXT_CONTENT_TYPE });
    }
    const result = await weatherService.averageTemperature(providers, city);
    res.json(result);
  });

  return router;
}
