@NullMarked
package io.switchboard.internal;

import org.jspecify.annotations.NullMarked;
