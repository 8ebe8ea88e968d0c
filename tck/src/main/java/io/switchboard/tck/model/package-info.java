@NullMarked
package io.switchboard.tck.model;

import org.jspecify.annotations.NullMarked;
