// Jest setup for every test file: tests check what hashing does, not what it costs, so new hashes
// use small argon2id parameters. test/common/passwords.test.ts pins the production defaults.
import { configurePasswordHashing } from '../../src/common/passwords';

export const TEST_HASHING = { memoryKib: 1024, timeCost: 1, parallelism: 1 };

configurePasswordHashing(TEST_HASHING);
