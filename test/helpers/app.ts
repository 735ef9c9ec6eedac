import type { Express } from 'express';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/common/logger';
import { loadConfig, type Config } from '../../src/config';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-at-least-32-characters';

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    SESSION_SECRET: 'test-session-secret-that-is-at-least-32-chars',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RATE_LIMITS: 'off',
    ...overrides,
  });
}

export function testApp(overrides: Record<string, string> = {}): Express {
  const config = testConfig(overrides);
  return createApp({ config, logger: createLogger(config.logLevel) });
}
