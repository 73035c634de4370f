/** The apps feature as other features use it (its public file: import nothing else of it). */
export { errorStatus, useGetTesterViewQuery, useListAppsQuery } from './api';
export { hardwareLabels, permissionLabels } from './editors/types';
export { appFieldLabels } from './form/appForm';
export { AppsTable } from './list/AppsTable';
export type { TesterView } from './types';
