/** The dashboard feature as other features use it (the page itself is a lazy route). */
export { DashboardOutline } from './DashboardParts';
