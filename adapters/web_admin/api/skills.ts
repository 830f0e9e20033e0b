/**
 * Console section `skills` (issue 10 §6; docs/console.md).
 */
import express from 'express';
import type { AdminSection } from '../kit.ts';

/** The `skills` section. */
export const skillsSection: AdminSection = {
  id: 'skills',
  title: { zh: '技能', en: 'Skills' },
  routes() {
    return express.Router();
  },
};
