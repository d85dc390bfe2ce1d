import { AppError, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';

/** The estimation module's refusals (docs/errors.md, range 1_005_000_000). */
export const EstimationError = errcodes({
  EXPIRED: [
    1_005_000_001,
    'the estimation has expired or was never calculated (results are kept 2 hours): run the calculation again',
  ],
});

export const estimationExpired = () =>
  new AppError(
    EstimationError.EXPIRED,
    'the estimation has expired or was never calculated (results are kept 2 hours): run the calculation again',
  );
export const estimationDetailNotFound = () => notFound('estimation detail');
export const virtualDetailNotFound = () => notFound('estimation detail (id) in the calculated estimation');
export const cardModelNotFound = () => notFound('card model');
export const alreadySubmitted = (id: number, no: string) => conflict(`estimation ${id} was already submitted as ${no}`);
export const platformOnly = () => forbidden('only platform users can work with estimations');
