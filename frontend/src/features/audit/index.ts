/** The audit log feature as other features use it (its public file: import nothing else of it). */
export { AuditLog } from './AuditLog';
