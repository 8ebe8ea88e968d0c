@NullMarked
package io.switchboard.routing;

import org.jspecify.annotations.NullMarked;
