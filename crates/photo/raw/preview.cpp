/* The few LibRaw calls photo needs, behind a flat C interface: LibRaw's
 * structs change between releases, so only this file (compiled against
 * the installed headers) reads their fields. The file is read through
 * the caller's read and seek callbacks (a seekable reader in Rust), so
 * LibRaw takes only the parts it needs: the directories and the preview,
 * not the whole raw data. */
#include <cstdio>
#include <cstring>
#include <new>
#include <libraw/libraw.h>

extern "C" {
/* Reads up to len bytes at the current position; returns how many (0 at
 * the end) or -1 on an error. */
typedef long long (*photo_read_fn)(void *ctx, void *buf, size_t len);
/* Moves to an absolute position; returns 0, or -1 on an error. */
typedef int (*photo_seek_fn)(void *ctx, long long pos);
}

namespace {

/* A buffered stream over the callbacks: LibRaw reads directories a few
 * bytes at a time. */
class CallbackStream : public LibRaw_abstract_datastream {
  public:
    CallbackStream(void *ctx, photo_read_fn rd, photo_seek_fn sk, INT64 total)
        : ctx_(ctx), rd_(rd), sk_(sk), total_(total) {}
    int valid() override { return 1; }
    int read(void *ptr, size_t size, size_t nmemb) override {
        if (size == 0) return 0;
        size_t want = size * nmemb, got = 0;
        unsigned char *out = static_cast<unsigned char *>(ptr);
        while (got < want) {
            if (pos_ >= buf_start_ && pos_ < buf_start_ + (INT64)buf_len_) {
                size_t at = (size_t)(pos_ - buf_start_);
                size_t n = buf_len_ - at < want - got ? buf_len_ - at : want - got;
                memcpy(out + got, buf_ + at, n);
                got += n;
                pos_ += n;
            } else if (want - got >= sizeof buf_) {
                /* Large reads (the preview) go straight through. */
                if (sk_(ctx_, pos_) != 0) break;
                long long n = rd_(ctx_, out + got, want - got);
                if (n <= 0) break;
                got += (size_t)n;
                pos_ += n;
            } else if (!fill()) {
                break;
            }
        }
        return (int)(got / size);
    }
    int seek(INT64 o, int whence) override {
        INT64 to = whence == SEEK_SET ? o : whence == SEEK_CUR ? pos_ + o : total_ + o;
        if (to < 0) to = 0;
        if (to > total_) to = total_;
        pos_ = to;
        return 0;
    }
    INT64 tell() override { return pos_; }
    INT64 size() override { return total_; }
    int get_char() override {
        unsigned char c;
        return read(&c, 1, 1) == 1 ? c : -1;
    }
    char *gets(char *s, int sz) override {
        if (sz <= 0) return nullptr;
        int i = 0;
        while (i < sz - 1) {
            int c = get_char();
            if (c < 0) break;
            s[i++] = (char)c;
            if (c == '\n') break;
        }
        s[i] = 0;
        return i ? s : nullptr;
    }
    int scanf_one(const char *fmt, void *val) override {
        /* One whitespace-separated token, as LibRaw's own streams read. */
        char token[32];
        int c, i = 0;
        while ((c = get_char()) >= 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0)) {
        }
        while (c >= 0 && !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0) && i < 31) {
            token[i++] = (char)c;
            c = get_char();
        }
        token[i] = 0;
        return i ? sscanf(token, fmt, val) : EOF;
    }
    int eof() override { return pos_ >= total_; }
    void *make_jas_stream() override { return nullptr; }

  private:
    bool fill() {
        if (pos_ >= total_ || sk_(ctx_, pos_) != 0) return false;
        long long n = rd_(ctx_, buf_, sizeof buf_);
        if (n <= 0) return false;
        buf_start_ = pos_;
        buf_len_ = (size_t)n;
        return true;
    }
    void *ctx_;
    photo_read_fn rd_;
    photo_seek_fn sk_;
    INT64 total_, pos_ = 0, buf_start_ = 0;
    size_t buf_len_ = 0;
    unsigned char buf_[64 * 1024];
};

/* LibRaw prints damaged data to stderr by default; the caller gets the
 * error code instead. */
void quiet(void *, const char *, const int) {}

}  // namespace

extern "C" {

/* What a RAW holds: its camera, orientation, sizes and, when asked, its
 * largest embedded preview or (without one) the image developed at half
 * size. */
typedef struct {
    int flip;                   /* LibRaw's: 0, 3 (180), 5 (90 anticlockwise), 6 (90 clockwise) */
    int raw_width, raw_height;  /* the developed image's size, before flip */
    int thumb_width, thumb_height, thumb_format; /* 0 format: no preview */
    char make[64], model[64];
    libraw_processed_image_t *image; /* owned: photo_raw_free */
} photo_raw;

/* mode 0: information only; 1: the preview, or the half-size development
 * when there is none; 2: the half-size development. Returns 0 or a LibRaw
 * error code (libraw_strerror names it). */
int photo_raw_open(void *ctx, photo_read_fn rd, photo_seek_fn sk, long long size, int mode,
                   photo_raw *out) {
    memset(out, 0, sizeof *out);
    LibRaw *raw = new (std::nothrow) LibRaw(0);
    if (!raw) return LIBRAW_UNSUFFICIENT_MEMORY;
    CallbackStream *stream = new (std::nothrow) CallbackStream(ctx, rd, sk, size);
    if (!stream) {
        delete raw;
        return LIBRAW_UNSUFFICIENT_MEMORY;
    }
    raw->set_dataerror_handler(quiet, nullptr);
    int err = raw->open_datastream(stream);
    if (!err) {
        libraw_data_t &d = raw->imgdata;
        out->flip = d.sizes.flip;
        out->raw_width = d.sizes.width;
        out->raw_height = d.sizes.height;
        out->thumb_width = d.thumbnail.twidth;
        out->thumb_height = d.thumbnail.theight;
        /* The format is known only once unpacked; its length from the header. */
        out->thumb_format = d.thumbnail.tlength > 0;
        snprintf(out->make, sizeof out->make, "%s", d.idata.make);
        snprintf(out->model, sizeof out->model, "%s", d.idata.model);
        if (mode == 1 && d.thumbnail.tlength > 0) {
            err = raw->unpack_thumb();
            if (!err) out->image = raw->dcraw_make_mem_thumb(&err);
        }
        if (mode >= 1 && !out->image) {
            d.params.half_size = 1;
            d.params.use_camera_wb = 1;
            d.params.output_bps = 8;
            err = raw->unpack();
            if (!err) err = raw->dcraw_process();
            if (!err) out->image = raw->dcraw_make_mem_image(&err);
        }
        if (mode >= 1 && !out->image && !err) err = LIBRAW_UNSPECIFIED_ERROR;
        if (out->image) err = 0;
    }
    raw->recycle();
    delete raw;
    delete stream;
    return err;
}

void photo_raw_free(photo_raw *r) {
    if (r->image) LibRaw::dcraw_clear_mem(r->image);
    r->image = nullptr;
}

/* The image's fields, read here so Rust need not know its layout. */
int photo_raw_image_kind(const photo_raw *r) { return r->image ? (int)r->image->type : 0; }
int photo_raw_image_width(const photo_raw *r) { return r->image ? r->image->width : 0; }
int photo_raw_image_height(const photo_raw *r) { return r->image ? r->image->height : 0; }
int photo_raw_image_colors(const photo_raw *r) { return r->image ? r->image->colors : 0; }
int photo_raw_image_bits(const photo_raw *r) { return r->image ? r->image->bits : 0; }
const unsigned char *photo_raw_image_data(const photo_raw *r, size_t *size) {
    if (!r->image) {
        *size = 0;
        return nullptr;
    }
    *size = r->image->data_size;
    return r->image->data;
}

}  /* extern "C" */
