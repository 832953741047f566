/* Reached only through the halo exchange's -I: the message tag. */
#define HALO_TAG 17
