// Jest setup for every test file: responses recorded by testApp() must conform to the OpenAPI
// document; any that did not fail the test that caused them.
import { takeSpecViolations } from './app';

afterEach(() => {
  expect(takeSpecViolations()).toEqual([]);
});
