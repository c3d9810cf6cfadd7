-- name: GetAuthor :one
SELECT * FROM authors WHERE id = @id;

-- name: ListAuthorsByMood :many
SELECT id, name FROM authors WHERE mood = @mood ORDER BY name;

-- name: BooksWithAuthors :many
-- BooksWithAuthors joins every book to its author, if any.
SELECT b.id, b.title, a.name AS author_name, a.mood AS author_mood
FROM books b
LEFT JOIN authors a ON a.id = b.author_id
ORDER BY b.id;

-- name: AuthorsWithBooks :many
SELECT a.*, b.title
FROM authors a
JOIN books b ON b.author_id = a.id
WHERE a.id = @author_id;

-- name: CountBooks :one
SELECT count(*) FROM books WHERE author_id = $1;

-- name: BookSummaries :many
SELECT id,
       COALESCE(price, 0) AS price,
       CASE WHEN pages > 300 THEN 'long' ELSE 'short' END AS length,
       title AS book_title
FROM books
WHERE id = ANY(@ids::bigint[])
LIMIT @lim OFFSET @off;

-- name: PageBooks :many
SELECT id, title FROM books ORDER BY id LIMIT $1 OFFSET $2;

-- name: SearchAuthors :many
SELECT id, name, bio FROM authors
WHERE (sqlc.narg(name)::text IS NULL OR name = sqlc.narg(name))
  AND mood = sqlc.arg(mood);

-- name: BookTags :one
SELECT tags, published FROM books WHERE id = @id;
