export const REQUIRED_PERMISSIONS = 'comanda:security:permissions';
export const PUBLIC_ROUTE = 'comanda:security:public';
