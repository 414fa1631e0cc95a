/* A fixture for the layering check: a statistics file that reaches up into the engine.
 * check_layers.py must reject this tree (the test 'layering_catches_upward' expects so). */
#include "lab/engine.h"
