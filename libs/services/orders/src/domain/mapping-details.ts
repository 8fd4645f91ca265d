// The shape is shared with the config store, which checks the charge items' mapping details
// of an `order-charges` config when it is saved.
export { mappingDetailsProblem, type MappingDetails } from '@comanda/contracts';
