/**
 * Console section `secrets` (issue 10 §6; docs/console.md).
 */
import express from 'express';
import type { AdminSection } from '../kit.ts';

/** The `secrets` section. */
export const secretsSection: AdminSection = {
  id: 'secrets',
  title: { zh: '参数与密钥', en: 'Parameters & secrets' },
  routes() {
    return express.Router();
  },
};
