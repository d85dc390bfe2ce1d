import { AppError, badRequest, conflict, errcodes, forbidden, notFound } from '../../platform/errors.js';

/** Object storage codes 1_011_000_000+ (docs/errors.md); everything else uses the common codes. */
export const StorageError = errcodes({
  TYPE_NOT_ALLOWED: [
    1_011_000_001,
    "this type of file is not accepted here (the sniffed content is not among the operation's types)",
  ],
});

/** The sniffed content is not among the operation's types; `message` says which are. */
export const typeNotAllowed = (message: string) => new AppError(StorageError.TYPE_NOT_ALLOWED, message);
export const fileRequired = () => badRequest('file is required: send it as the multipart part named "file"');
export const fileEmpty = () => badRequest('the file is empty');
export const unknownUpload = () => badRequest('uploadId is unknown or has expired: start again with multipartFileInit');
export const foreignUpload = () => forbidden('the upload was started by another account');
export const uploadComplete = () =>
  conflict('the upload is already complete and this chunk differs from the one it was built from');
export const fileNotFound = () => notFound('file');
