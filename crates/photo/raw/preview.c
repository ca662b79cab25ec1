/* The few LibRaw calls photo needs, behind a flat interface: LibRaw's
 * structs change between releases, so only this file (compiled against
 * the installed headers) reads their fields. */
#include <stdlib.h>
#include <string.h>
#include <libraw/libraw.h>

/* What a RAW holds: its camera, orientation, sizes and, when asked, its
 * largest embedded preview or (without one) the image developed at half
 * size. */
typedef struct {
    int flip;                /* LibRaw's: 0, 3 (180), 5 (90 anticlockwise), 6 (90 clockwise) */
    int raw_width, raw_height;   /* the developed image's size, before flip */
    int thumb_width, thumb_height, thumb_format;  /* 0 format: no preview */
    char make[64], model[64];
    libraw_processed_image_t *image; /* owned: photo_raw_free */
} photo_raw;

/* LibRaw prints damaged data to stderr by default; the caller gets the
 * error code instead. */
static void quiet(void *data, const char *file, const int offset) {
    (void)data; (void)file; (void)offset;
}

static void names(photo_raw *out, libraw_data_t *d) {
    strncpy(out->make, d->idata.make, sizeof out->make - 1);
    strncpy(out->model, d->idata.model, sizeof out->model - 1);
}

/* mode 0: information only; 1: the preview, or the half-size development
 * when there is none; 2: the half-size development. Returns 0 or a LibRaw
 * error code (libraw_strerror names it). */
int photo_raw_open(const void *bytes, size_t size, int mode, photo_raw *out) {
    memset(out, 0, sizeof *out);
    libraw_data_t *d = libraw_init(0);
    if (!d) return LIBRAW_UNSUFFICIENT_MEMORY;
    libraw_set_dataerror_handler(d, quiet, NULL);
    int err = libraw_open_buffer(d, (void *)bytes, size);
    if (err) { libraw_close(d); return err; }
    out->flip = d->sizes.flip;
    out->raw_width = d->sizes.width;
    out->raw_height = d->sizes.height;
    out->thumb_width = d->thumbnail.twidth;
    out->thumb_height = d->thumbnail.theight;
    /* The format is known only once unpacked; its length from the header. */
    out->thumb_format = d->thumbnail.tlength > 0;
    names(out, d);
    if (mode == 1 && d->thumbnail.tlength > 0) {
        err = libraw_unpack_thumb(d);
        if (!err) out->image = libraw_dcraw_make_mem_thumb(d, &err);
        if (out->image) { libraw_close(d); return 0; }
    }
    if (mode >= 1) {
        d->params.half_size = 1;
        d->params.use_camera_wb = 1;
        d->params.output_bps = 8;
        err = libraw_unpack(d);
        if (!err) err = libraw_dcraw_process(d);
        if (!err) out->image = libraw_dcraw_make_mem_image(d, &err);
    }
    libraw_close(d);
    return out->image || mode == 0 ? 0 : (err ? err : LIBRAW_UNSPECIFIED_ERROR);
}

void photo_raw_free(photo_raw *r) {
    if (r->image) libraw_dcraw_clear_mem(r->image);
    r->image = NULL;
}

/* The image's fields, read here so Rust need not know its layout. */
int photo_raw_image_kind(const photo_raw *r) { return r->image ? (int)r->image->type : 0; }
int photo_raw_image_width(const photo_raw *r) { return r->image ? r->image->width : 0; }
int photo_raw_image_height(const photo_raw *r) { return r->image ? r->image->height : 0; }
int photo_raw_image_colors(const photo_raw *r) { return r->image ? r->image->colors : 0; }
int photo_raw_image_bits(const photo_raw *r) { return r->image ? r->image->bits : 0; }
const unsigned char *photo_raw_image_data(const photo_raw *r, size_t *size) {
    if (!r->image) { *size = 0; return NULL; }
    *size = r->image->data_size;
    return r->image->data;
}
