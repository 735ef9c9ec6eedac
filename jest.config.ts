import type { Config } from 'jest';

const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': 'ts-jest',
    // openid-client, oauth4webapi and jose ship only ES modules: the tests use them as real clients.
    '/node_modules/(openid-client|oauth4webapi|jose)/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openid-client|oauth4webapi|jose)/)'],
  // Starts the embedded database once for the run unless MONGODB_URI is set.
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/helpers/fast-hashing.ts', '<rootDir>/test/helpers/spec-conformance.ts'],
  testTimeout: 30_000,
  // Two cores: one worker per core keeps argon2 and the database from starving each other.
  maxWorkers: 2,
};

export default config;
