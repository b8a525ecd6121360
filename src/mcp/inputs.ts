/** The tools' arguments, checked by the SDK against these shapes before a tool runs. */
import { z } from 'zod';
import { isOwnerName, isRepositoryName } from '../model/index.js';

export const owner = z
  .string()
  .refine(isOwnerName, 'not a GitHub owner name')
  .describe('Repository owner (user or organization)');
export const repo = z
  .string()
  .refine(isRepositoryName, 'not a GitHub repository name')
  .describe('Repository name');
export const pull = z
  .number()
  .int()
  .positive()
  .max(Number.MAX_SAFE_INTEGER)
  .describe('Pull request number');
export const job = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,100}$/)
  .describe('Job id that review_branch returned');
export const format = z
  .enum(['json', 'markdown'])
  .default('json')
  .describe('json: the analysis as the API serves it; markdown: the pull request comment');
