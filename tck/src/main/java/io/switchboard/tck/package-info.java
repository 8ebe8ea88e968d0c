@NullMarked
package io.switchboard.tck;

import org.jspecify.annotations.NullMarked;
